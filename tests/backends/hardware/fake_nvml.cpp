// A stand-in for libnvidia-ml.so.1 with the entry points NvmlPowerMeter loads, so that its dlopen
// path is tested without a driver. Deterministic: power is always 250 W and every read of the
// energy counter advances it by exactly 1000 mJ. FAKE_NVML_FAIL_INIT=1 makes nvmlInit_v2 fail.
#include <cstdlib>
#include <cstring>

namespace {
unsigned long long energy_mj = 5000;
int device_token = 0;
}  // namespace

extern "C" {

__attribute__((visibility("default"))) int nvmlInit_v2() {
  const char* fail = std::getenv("FAKE_NVML_FAIL_INIT");
  return fail != nullptr && std::strcmp(fail, "1") == 0 ? 9 : 0;  // 9: NVML_ERROR_DRIVER_NOT_LOADED
}
__attribute__((visibility("default"))) int nvmlShutdown() { return 0; }
__attribute__((visibility("default"))) const char* nvmlErrorString(int status) {
  return status == 9 ? "Driver Not Loaded" : "Unknown Error";
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned index,
                                                                         void** device) {
  if (index != 0) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = &device_token;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetTotalEnergyConsumption(
    void*, unsigned long long* mj) {
  energy_mj += 1000;
  *mj = energy_mj;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPowerUsage(void*, unsigned* mw) {
  *mw = 250000;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetName(void*, char* name, unsigned length) {
  std::strncpy(name, "Fake GPU", length);
  return 0;
}
__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char* version,
                                                                      unsigned length) {
  std::strncpy(version, "999.1", length);
  return 0;
}
}
