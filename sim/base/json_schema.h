// SPDX-License-Identifier: Apache-2.0
// JsonSchema: a JSON Schema (draft 7) compiled once with valijson, and the
// check of a document against it, reported as one line that names the most
// specific failure: "<JSON pointer>: <what is wrong> (<schema name>)".
//
// Thread-safety: Validate may be called from any thread (valijson runs under
// one process-wide lock; validation is rare and small).
#ifndef CHSIM_SIM_BASE_JSON_SCHEMA_H_
#define CHSIM_SIM_BASE_JSON_SCHEMA_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace valijson {
class Schema;
}

namespace chsim::sim {

class JsonSchema {
 public:
  // `name` is how errors cite the schema, e.g. "scenarios/schema.json".
  JsonSchema(const nlohmann::json& schema, std::string name);
  ~JsonSchema();
  JsonSchema(const JsonSchema&) = delete;
  JsonSchema& operator=(const JsonSchema&) = delete;

  // "" when `doc` conforms; otherwise the deepest error, as above.
  std::string Validate(const nlohmann::json& doc) const;

 private:
  std::unique_ptr<valijson::Schema> schema_;
  std::string name_;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_JSON_SCHEMA_H_
