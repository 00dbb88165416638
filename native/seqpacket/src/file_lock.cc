#include "file_lock.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace jobio {

Napi::Value LockFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsNumber() || !info[1].IsString()) {
    throw Napi::TypeError::New(env, "lockFile(fd, 'write' | 'read')");
  }
  const int fd = info[0].As<Napi::Number>().Int32Value();
  const std::string kind = info[1].As<Napi::String>().Utf8Value();
  if (kind != "write" && kind != "read") throw Napi::TypeError::New(env, "lockFile: kind is 'write' or 'read'");
  struct flock lock;
  std::memset(&lock, 0, sizeof lock);
  lock.l_type = kind == "write" ? F_WRLCK : F_RDLCK;
  lock.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file, however long it grows; l_pid must be 0
  int rc;
  do {
    rc = fcntl(fd, F_OFD_SETLK, &lock);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return Napi::String::New(env, "locked");
  if (errno == EAGAIN || errno == EACCES) return Napi::String::New(env, "busy");
  if (errno == ENOLCK || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)
    return Napi::String::New(env, "unsupported");
  throw Napi::Error::New(env, std::string("fcntl(F_OFD_SETLK): ") + std::strerror(errno));
}

}  // namespace jobio
