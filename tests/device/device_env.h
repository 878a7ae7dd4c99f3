// device_env.h: the one device session of a device-test process, and the skip rule.
//
// Every device test needs the GPU; where there is none (CI, developer machines) it skips with the
// runtime's reason printed ("no libcuda.so.1", "no CUDA device", ...). Any other failure to open
// the device is a test failure, not a skip. Each test draws a fresh input seed and prints it;
// PTXKIT_DEVICE_SEED=N repeats one.
#pragma once

#include "device_harness.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>

namespace ptxkit::device_tests {

struct DeviceEnv {
  // The session, or nullptr with `reason()` set.
  static cli::device::Session* session();
  static const std::string& reason();
  static bool unavailable(); // true when the reason is "no device/driver" (skip, not fail)
};

// A fresh seed (or $PTXKIT_DEVICE_SEED), printed and recorded in the test's XML.
std::uint64_t test_seed();

} // namespace ptxkit::device_tests

#define PTXKIT_REQUIRE_DEVICE()                                                                    \
  do {                                                                                             \
    if (::ptxkit::device_tests::DeviceEnv::session() == nullptr) {                                 \
      if (::ptxkit::device_tests::DeviceEnv::unavailable())                                        \
        GTEST_SKIP() << "no GPU: " << ::ptxkit::device_tests::DeviceEnv::reason();                 \
      FAIL() << "opening the device failed: " << ::ptxkit::device_tests::DeviceEnv::reason();      \
    }                                                                                              \
  } while (false)
