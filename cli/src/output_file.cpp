// output_file.cpp: writing -o targets whole or not at all, and whole-file reads, for the CLI.
#include "output_file.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxkit::cli {

namespace {

bool write_all(int fd, std::string_view content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string reason(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

// Where a symlink chain ends: the path a write through `path` reaches (the path itself when it
// is no symlink). A dangling link's target is returned as written (relative to the link's
// directory): writing creates it.
std::string final_target(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char buf[PATH_MAX];
    ssize_t n = ::readlink(current.c_str(), buf, sizeof buf - 1);
    if (n < 0) return current;
    std::string target(buf, static_cast<std::size_t>(n));
    if (!target.starts_with('/')) {
      auto slash = current.rfind('/');
      target = (slash == std::string::npos ? std::string() : current.substr(0, slash + 1)) + target;
    }
    current = target;
  }
  return current;
}

mode_t creation_mode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return static_cast<mode_t>(0666 & ~mask);
}

// The temporary-and-rename write of a regular file (or of a path that does not exist yet):
// readers see the old bytes or the new ones, never a part; the file keeps its permissions.
bool replace_regular(const std::string& target, mode_t mode, std::string_view content,
                     std::string& error, const std::string& shown) {
  std::string tmp = target + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    error = reason("cannot create a temporary file beside", shown);
    return false;
  }
  if (!write_all(fd, content) || ::fsync(fd) != 0) {
    error = reason("cannot write", shown);
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::fchmod(fd, mode) != 0 || ::close(fd) != 0) {
    error = reason("cannot write", shown);
    ::unlink(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    error = reason("cannot rename onto", shown);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace

bool write_file_atomically(const std::string& path, std::string_view content, std::string& error) {
  if (path.empty()) {
    error = "the output path is empty (use -o - for standard output)";
    return false;
  }
  if (path == "-") {
    if (!write_all(STDOUT_FILENO, content)) {
      error = std::string("cannot write standard output: ") + std::strerror(errno);
      return false;
    }
    return true;
  }
  const std::string target = final_target(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      error = "'" + path + "' is a directory: -o needs a file";
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      // A character device, FIFO or socket (/dev/null, /dev/stdout, a pipe): written through,
      // never replaced by a regular file.
      int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) {
        error = reason("cannot open", path);
        return false;
      }
      bool ok = write_all(fd, content);
      int saved = errno;
      ::close(fd);
      if (!ok) {
        errno = saved;
        error = reason("cannot write", path);
        return false;
      }
      return true;
    }
    return replace_regular(target, st.st_mode & 07777, content, error, path);
  }
  if (errno != ENOENT) {
    error = reason("cannot write", path);
    return false;
  }
  return replace_regular(target, creation_mode(), content, error, path);
}

bool read_file(const std::string& path, std::string& content, std::string& error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    error = "'" + path + "' is a directory, not a file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  // A regular file is read into a string of its size (no doubling growth: inputs can be tens
  // of megabytes); pipes and devices, and whatever a growing file adds, in chunks.
  content.clear();
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    content.resize(static_cast<std::size_t>(st.st_size));
    in.read(content.data(), static_cast<std::streamsize>(content.size()));
    content.resize(static_cast<std::size_t>(in.gcount()));
  }
  char chunk[1 << 16];
  while (in && in.read(chunk, sizeof chunk).gcount() > 0)
    content.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) {
    error = "cannot read '" + path + "': I/O error";
    return false;
  }
  return true;
}

} // namespace ptxkit::cli
