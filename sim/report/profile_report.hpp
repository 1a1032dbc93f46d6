// What `fulcrum profile` wrote, and its JSON (`--json`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace fulcrum::sim {

struct ProfileReport {
  std::size_t rows = 0;  // measurements written
  std::filesystem::path out_csv;
  std::optional<std::filesystem::path> layers_csv;  // with layer timing
};

// {"rows": N, "profile_csv": "...", "layers_csv": "..." | null}
std::string profile_json(const ProfileReport& report);

}  // namespace fulcrum::sim
