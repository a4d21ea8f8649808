#include "mail_triage/service.hpp"

int main(int argc, char** argv) { return core::app::main(argc, argv, mail_triage::definition()); }
