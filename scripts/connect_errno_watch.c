// SPDX-License-Identifier: Apache-2.0
// LD_PRELOAD probe for gRPC 1.51's connect errno race (src/service/
// grpc_process.hpp): remembers errno after a TCP connect() that is still in
// progress and, at the next epoll_ctl(EPOLL_CTL_ADD) of that thread (the end
// of grpc_fd_create, just before gRPC reads errno), reports with a backtrace
// when errno changed meanwhile. EAGAIN there is harmless (gRPC takes it as
// EWOULDBLOCK, i.e. in progress); anything else fails the connect. To see
// which system call changed it, run under `strace -f` and read that
// thread's calls between the two (ENOENT: absl's
// openat(".../cpu0/tsc_freq_khz") from the first contended absl::Mutex).
//   gcc -O1 -shared -fPIC -o /tmp/connect_errno_watch.so scripts/connect_errno_watch.c -ldl
//   LD_PRELOAD=/tmp/connect_errno_watch.so build/bin/cuzk_daemon_tests --gtest_filter=...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdatomic.h>
static __thread int after_connect = 0, saved = 0;
static atomic_int n_connect, n_clobber;
int connect(int fd, const struct sockaddr* a, socklen_t l) {
  static int (*real)(int, const struct sockaddr*, socklen_t);
  if (!real) real = dlsym(RTLD_NEXT, "connect");
  int r = real(fd, a, l);
  if (r < 0 && a && (a->sa_family == AF_INET || a->sa_family == AF_INET6)) {
    after_connect = 1;
    saved = errno;
    atomic_fetch_add(&n_connect, 1);
  }
  return r;
}
int epoll_ctl(int epfd, int op, int fd, struct epoll_event* ev) {
  static int (*real)(int, int, int, struct epoll_event*);
  int e = errno;
  if (!real) real = dlsym(RTLD_NEXT, "epoll_ctl");
  if (after_connect && op == EPOLL_CTL_ADD) {
    after_connect = 0;
    if (e != saved) {
      atomic_fetch_add(&n_clobber, 1);
      char buf[200];
      int n =
          snprintf(buf, sizeof buf,
                   "ERRNOWATCH: errno after connect %d (%s) became %d (%s) before grpc_fd_create's epoll_ctl, fd %d\n",
                   saved, strerror(saved), e, strerror(e), fd);
      write(2, buf, n);
      void* bt[40];
      int k = backtrace(bt, 40);
      backtrace_symbols_fd(bt, k, 2);
    }
  }
  errno = e;
  return real(epfd, op, fd, ev);
}
__attribute__((destructor)) static void fin(void) {
  char buf[120];
  int n = snprintf(buf, sizeof buf, "ERRNOWATCH: %d inet connects in progress seen, %d clobbered\n",
                   atomic_load(&n_connect), atomic_load(&n_clobber));
  write(2, buf, n);
}
