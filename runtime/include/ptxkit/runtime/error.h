// error.h: the runtime's error values and its Expected<T> result type.
//
// Every driver call, every refusal before loading and every launch check reports through these
// values; nothing is thrown across the library boundary. The ErrorKind tells callers (the CLI
// above all) what went wrong in a way they can act on: the "unavailable" kinds mean there is no
// usable CUDA device or driver here, which `ptxkit run`/`bench` turn into exit code 3.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace ptxkit::runtime {

enum class ErrorKind {
  kNoDriver,     // libcuda.so.1 missing, not a driver (stub), or lacks the entry points we need
  kNoDevice,     // the driver sees no CUDA device (or not the ordinal asked for)
  kDriverTooOld, // the driver is older than the CUDA version or PTX ISA version required
  kDeviceUnsupported, // the device's architecture cannot run the PTX's .target
  kDriver,            // any other failing driver call (carries the CUresult)
  kJit,               // cuModuleLoadDataEx refused the PTX (carries the JIT log)
  kBadLaunch,         // a launch refused by the checks before it reached the driver
  kBadArgument,       // a caller error: unknown entry, size mismatch on a copy, malformed input
};

// A short lower-case name for the kind ("no-driver", "bad-launch", ...), for logs and tests.
std::string_view to_string(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::kDriver;
  std::string message;         // complete, human-readable; names the call and the CUresult if any
  int cu_result = 0;           // the CUresult when the error came from a driver call, else 0
  std::string cu_name;         // "CUDA_ERROR_OUT_OF_MEMORY" etc. when cu_result != 0
  std::string jit_log;         // kJit: the driver's error log, verbatim
  std::optional<int> ptx_line; // kJit: the PTX line the log names, if it names one

  // True for the kinds that mean "no usable CUDA device or driver here" (CLI exit code 3).
  bool is_unavailable() const {
    return kind == ErrorKind::kNoDriver || kind == ErrorKind::kNoDevice ||
           kind == ErrorKind::kDriverTooOld || kind == ErrorKind::kDeviceUnsupported;
  }
};

// Builds an Error of `kind` with `message` (no CUresult).
inline Error make_error(ErrorKind kind, std::string message) {
  Error e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

// Wraps an Error for returning it where an Expected<T> is expected.
struct Unexpected {
  Error error;
};
inline Unexpected fail(Error e) {
  return Unexpected{std::move(e)};
}
inline Unexpected fail(ErrorKind kind, std::string message) {
  return Unexpected{make_error(kind, std::move(message))};
}

// A value or an Error. C++20 has no std::expected, so this is the small subset ptxkit uses.
template <class T>
class [[nodiscard]] Expected {
public:
  static_assert(!std::is_reference_v<T>, "Expected<T&> is not supported");

  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Expected(Unexpected u) : v_(std::in_place_index<1>, std::move(u.error)) {}
  template <class U>
  requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, T> &&
           !std::is_same_v<std::decay_t<U>, Unexpected> &&
           !std::is_same_v<std::decay_t<U>, Expected>) Expected(U&& value)
      : v_(std::in_place_index<0>, T(std::forward<U>(value))) {}

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value() && "Expected::value() on an error");
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(has_value() && "Expected::value() on an error");
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(has_value() && "Expected::value() on an error");
    return std::move(std::get<0>(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& {
    assert(!has_value() && "Expected::error() on a value");
    return std::get<1>(v_);
  }
  Error&& error() && {
    assert(!has_value() && "Expected::error() on a value");
    return std::move(std::get<1>(v_));
  }

private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Unexpected u) : error_(std::move(u.error)) {}

  bool has_value() const { return !error_.has_value(); }
  explicit operator bool() const { return has_value(); }
  void value() const { assert(has_value() && "Expected<void>::value() on an error"); }

  const Error& error() const& {
    assert(!has_value() && "Expected::error() on a value");
    return *error_;
  }
  Error&& error() && {
    assert(!has_value() && "Expected::error() on a value");
    return std::move(*error_);
  }

private:
  std::optional<Error> error_;
};

} // namespace ptxkit::runtime

// Evaluates an Expected expression and returns its error from the enclosing function if it failed.
#define PTXKIT_RT_TRY(expr)                                                                        \
  do {                                                                                             \
    auto ptxkit_rt_try_result_ = (expr);                                                           \
    if (!ptxkit_rt_try_result_)                                                                    \
      return ::ptxkit::runtime::fail(std::move(ptxkit_rt_try_result_).error());                    \
  } while (false)
