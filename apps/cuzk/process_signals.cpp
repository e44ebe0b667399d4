// SPDX-License-Identifier: Apache-2.0
// Process signals of the daemon (see process_signals.hpp).
#include "process_signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>

namespace cuzk::daemon {
namespace {

void write_stderr(const char* s) {
  // async-signal-safe; a failed write (stderr closed) is ignored
  [[maybe_unused]] const ssize_t n = ::write(2, s, std::strlen(s));
}

extern "C" void on_fatal_signal(int sig) {
  write_stderr("cuzk: fatal signal ");
  write_stderr(signal_name(sig));
  write_stderr(sig == SIGBUS ? " (a memory-mapped file shrank under the process?); exiting\n" : "; exiting\n");
  ::signal(sig, SIG_DFL);  // the default action: core dump, status 128 + sig
  ::raise(sig);
}

[[noreturn]] void on_terminate() {
  write_stderr("cuzk: std::terminate (an exception escaped a thread, or a noexcept function threw)");
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      write_stderr(": ");
      write_stderr(x.what());
    } catch (...) {
    }
  }
  write_stderr("; aborting\n");
  ::signal(SIGABRT, SIG_DFL);
  std::abort();
}

sigset_t control_signals() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&s, sig);
  return s;
}

}  // namespace

const char* signal_name(int sig) {
  switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGPIPE: return "SIGPIPE";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "another signal";
  }
}

void install_process_signals() {
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
  std::set_terminate(on_terminate);
  const sigset_t s = control_signals();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

int wait_for_stop(const std::function<void(int)>& on_other) {
  const sigset_t s = control_signals();
  for (;;) {
    int sig = 0;
    if (sigwait(&s, &sig) != 0) continue;
    if (sig == SIGTERM || sig == SIGINT) return sig;
    if (on_other) on_other(sig);
  }
}

}  // namespace cuzk::daemon
