#pragma once
// A statement composed from the filters present (docs/conventions.md). Each combination of
// filters is then its own prepared statement with its own plan, so an absent filter never
// becomes `$n IS NULL OR col = $n`, which a generic plan cannot use an index for.
//
//   core::db::Composed st;
//   std::string where;
//   if (f.status) restrict(where, "e.status = " + st.bind(*f.status));
//   st.sql = "SELECT ... FROM email_log e" + where + " LIMIT " + st.bind(f.limit);
//   co_await db.execute(st.sql, std::move(st.params));      // or core::app::json_document(db, st)
#include "core/db/result.hpp"

#include <string>
#include <vector>

namespace core::db {

struct Composed {
  std::string sql;
  std::vector<Param> params;

  // Binds `value` as the next parameter; its placeholder ("$3").
  template <class T>
  std::string bind(T value) {
    params.push_back(to_param(std::move(value)));
    return "$" + std::to_string(params.size());
  }
};

// Appends one condition to a WHERE clause ("" becomes " WHERE c", then " AND c").
inline void restrict(std::string& where, const std::string& condition) {
  where += (where.empty() ? " WHERE " : " AND ") + condition;
}

// `q` as a LIKE/ILIKE pattern matching it as a plain substring: %, _ and \ are escaped (the
// default escape character), so a search for "5%" finds "5%", not "50".
inline std::string substring_pattern(std::string_view q) {
  std::string out = "%";
  for (const char c : q) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

}  // namespace core::db
