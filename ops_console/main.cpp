#include "ops_console/service.hpp"

int main(int argc, char** argv) { return core::app::main(argc, argv, ops_console::definition()); }
