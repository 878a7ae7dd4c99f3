// device_env.cpp: the shared device session and seeds of the device tests (device_env.h).
#include "device_env.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace ptxkit::device_tests {
namespace {

struct State {
  std::unique_ptr<cli::device::Session> session;
  std::string reason;
  bool unavailable = false;
};

State& state() {
  static State s = [] {
    State st;
    auto opened = cli::device::Session::open();
    if (opened) {
      st.session = std::make_unique<cli::device::Session>(std::move(*opened));
      std::printf("[device] %s\n", st.session->describe().c_str());
    } else {
      st.reason = opened.error().message;
      st.unavailable = opened.error().is_unavailable();
    }
    return st;
  }();
  return s;
}

} // namespace

cli::device::Session* DeviceEnv::session() {
  return state().session.get();
}
const std::string& DeviceEnv::reason() {
  return state().reason;
}
bool DeviceEnv::unavailable() {
  return state().unavailable;
}

std::uint64_t test_seed() {
  std::uint64_t seed = cli::device::fresh_seed();
  if (const char* env = std::getenv("PTXKIT_DEVICE_SEED")) seed = std::strtoull(env, nullptr, 0);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, seed);
  std::printf("[seed] %s (repeat with PTXKIT_DEVICE_SEED=%s)\n", buf, buf);
  ::testing::Test::RecordProperty("seed", buf);
  return seed;
}

} // namespace ptxkit::device_tests
