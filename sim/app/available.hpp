// What this build and a data folder offer a verb before it runs anything: the backends compiled
// in, and the device catalog of a data folder. The CLI asks these instead of reaching into
// backends/ and models/ itself.
//
//   app::require_backend("cuda");                 // InputError naming what is available
//   const models::DeviceCatalog c = app::devices_from(default_data_dir());
#pragma once

#include <string>
#include <string_view>

#include "models/device/device_catalog.hpp"

namespace fulcrum::sim::app {

// The backends of this build as people read them: "sim" or "sim, cuda".
std::string backends_text();

// InputError (as make_backend would throw) for a name that is unknown or not in this build.
void require_backend(std::string_view name);

// Whether the backend called `name` takes the CUDA options (--cuda-graphs, --profile-layers).
bool takes_cuda_options(std::string_view name);

// The device catalog of a data folder (its devices/ sub-folder).
models::DeviceCatalog devices_from(const std::string& data_dir);

}  // namespace fulcrum::sim::app
