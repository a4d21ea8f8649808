#pragma once
// A believable Duo parent account with child accounts for the Duo fake, from a seeded generator: the
// same options, seed and `now` give the same accounts and users (ids included).
//
// The parent is the MSP's own Duo account ("Northwind IT Services", the PSA fake's company 0); each
// child is a customer named after the PSA fake's companies 1, 2, ... (autotask::company_name). Every
// account has `users` users; their statuses are dealt in fixed shares and shuffled by the seed:
//
//   bypass            ~6%   (notes say why: "Bypass while phone is replaced (INC-10423)", or empty)
//   disabled          ~5%
//   locked out        ~2%
//   pending deletion  ~1%
//   active            the rest
//
// About one user in eight never enrolled (is_enrolled false, last_login null, no phone); the others
// enrolled with one phone and last logged in during the last 90 days (a few never: last_login null).
// Ids have Duo's forms: accounts "DA" + 18, users "DU" + 18, phones "DP" + 18 upper-case letters and
// digits.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sandbox {

struct DuoFakeSeedOptions {
  std::uint32_t seed = 1;
  int children = 2;        // child accounts of the parent (0..50)
  int users = 60;          // users in every account, the parent's included (0..20,000)
  int psa_companies = 40;  // how many companies the PSA fake has; children are named after 1..psa_companies-1
};

namespace duo {

struct User {
  std::string user_id;
  std::string username;
  std::string status;  // active, bypass, disabled, locked out, pending deletion
  bool enrolled = false;
  std::string json;  // the user as GET /admin/v1/users renders it
};

struct Account {
  std::string account_id;
  std::string name;
  bool parent = false;
  std::vector<User> users;  // in Duo's order (by username)
};

// The parent first, then the children.
std::vector<Account> seed_accounts(const DuoFakeSeedOptions& options, std::chrono::sys_seconds now);

}  // namespace duo
}  // namespace sandbox
