// SPDX-License-Identifier: Apache-2.0
#pragma once
// Signals of the daemon process (issue 25: every signal an operator or the
// environment sends either stops it cleanly, is logged and ignored, or is
// written down before the process dies).
//   * SIGPIPE ignored: a closed stderr pipe (journal restarted, `cuzk | head`)
//     or a peer that vanished makes write() fail with EPIPE instead of
//     killing the daemon; log lines written after that are lost, nothing else.
//   * SIGTERM, SIGINT: stop (drain within daemon.shutdown_timeout).
//   * SIGHUP: logged and ignored. There is no config reload: most keys size
//     thread pools, the budget and the listener at start, so a restart is
//     the documented way to apply a changed config.
//   * SIGUSR1: logs a one-line status summary (the hook gives it) and goes on.
//   * SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT and std::terminate: one line
//     naming the cause goes to stderr (async-signal-safe write), then the
//     default action (core dump, exit status 128 + signal).
// All of these are blocked in every thread (install before starting any) and
// taken by wait_for_stop with sigwait, so no handler runs on a pipeline thread.
#include <functional>

namespace cuzk::daemon {

/// SIGPIPE ignored, fatal-signal and terminate notes installed, and the
/// control signals blocked in the calling thread (and so in every thread it
/// starts afterwards).
void install_process_signals();

/// Blocks until SIGTERM or SIGINT and returns it. SIGHUP and SIGUSR1 call
/// |on_other| with the signal number and the wait goes on.
int wait_for_stop(const std::function<void(int)>& on_other);

/// "SIGTERM", "SIGHUP", ... ("signal N" for others).
const char* signal_name(int sig);

}  // namespace cuzk::daemon
