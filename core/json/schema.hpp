#pragma once
// Checks a JSON value against a JSON schema: the subset this project sends a language model as
// its structured-output schema (core/llm/chat.hpp), used on the model's reply because a server
// may ignore the schema it was given (../shared/vendors.md: "Always validate the returned JSON").
//
//   const auto errors = core::json::schema_errors(schema, reply);
//   if (!errors.empty()) ...  // {"/nextSteps/2: is longer than 300 characters", ...}
//
// Keywords: type (string, number, integer, boolean, array, object, null, or an array of these;
// `integer` also takes 2.0, as JSON Schema does), enum, const, properties, required,
// additionalProperties (false, or a schema for the properties not in `properties`), items (one
// schema for every item), minItems, maxItems, minLength, maxLength (in UTF-8 code points),
// minimum, maximum, allOf, anyOf, oneOf, and $ref to a JSON pointer into `root` (the document the
// schema is part of: "#/components/schemas/Problem" in an OpenAPI document; a $ref with no root,
// or naming nothing, is a message). `true` and `false` are schemas too (anything; nothing). Every
// other keyword (pattern, format, ...) is ignored, and so is a keyword whose argument has the wrong
// type. A value of the wrong type gets only the type message, not one per keyword besides.
//
// Each message starts with the JSON pointer of the value it is about (RFC 6901: "~" → "~0",
// "/" → "~1"; the whole value is "/"), then ": " and what is wrong. Property names taken from the
// value are cut to 64 characters in messages, so a hostile reply cannot make them long.
// Recursion follows the schema, not the value, so its depth is the schema's (ours); a schema
// nested deeper than 64 levels stops there with a message. At most `max_errors` messages (at
// least one); the walk stops when it has them, so a huge invalid value costs little.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace core::json {

// The messages for everything in `value` that `schema` does not allow; empty when it is valid.
std::vector<std::string> schema_errors(const nlohmann::json& schema, const nlohmann::json& value,
                                       std::size_t max_errors = 10, const nlohmann::json* root = nullptr);

}  // namespace core::json
