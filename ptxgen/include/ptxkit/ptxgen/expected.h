// expected.h: ptxkit::Error and ptxkit::Expected<T>, the error-as-value result used by every
// library.
//
// C++20 has no std::expected, and errors must never cross a library boundary as exceptions, so
// this small type carries either a value or an Error. It is [[nodiscard]] so a failure cannot be
// dropped silently. Other libraries (verifier, runtime, cli) reuse it.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ptxkit {

// An error: a message and, where known, the source position it points at (a C++ line for builder
// errors, a PTX line for verifier errors). `file` empty means "no position".
struct Error {
  std::string message;
  std::string file;
  unsigned line = 0;
  unsigned column = 0;

  // "file:line:col: message", "file:line: message", "file: message" (a whole file, line 0) or
  // just "message".
  std::string to_string() const {
    if (file.empty()) return message;
    // Appending (not `":" + std::to_string(..)`) sidesteps a g++ 12 -Wrestrict false positive.
    std::string s = file;
    if (line != 0) s.append(":").append(std::to_string(line));
    if (line != 0 && column != 0) s.append(":").append(std::to_string(column));
    return s.append(": ").append(message);
  }
};

template <class T>
class [[nodiscard]] Expected {
public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

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
    return std::get<0>(std::move(v_));
  }
  const Error& error() const {
    assert(!has_value() && "Expected::error() on a value");
    return std::get<1>(v_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)), ok_(false) {}

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_ && "Expected<void>::error() on success");
    return error_;
  }

private:
  Error error_;
  bool ok_ = true;
};

// Propagates an error out of a function returning Expected<U>.
#define PTXKIT_TRY(expr)                                                                           \
  do {                                                                                             \
    if (auto ptxkit_try_result_ = (expr); !ptxkit_try_result_) return ptxkit_try_result_.error();  \
  } while (0)

} // namespace ptxkit
