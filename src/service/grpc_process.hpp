// SPDX-License-Identifier: Apache-2.0
#pragma once
// prepare_grpc_process(): one-time work gRPC 1.51's client would otherwise do
// in the middle of a connect, done up front.
//
// Why: gRPC 1.51's TCP client (iomgr tcp_client_posix.cc,
// grpc_tcp_client_create_from_prepared_fd) calls connect(), then
// grpc_fd_create(), and only then reads errno to tell "in progress" from a
// failure (fixed upstream in grpc/grpc#35064, gRPC 1.61). grpc_fd_create
// takes absl::Mutexes; the first *contended* absl::Mutex in a process
// measures the CPU's nominal frequency once (absl 20220623,
// base_internal::NominalCPUFrequency: open("/sys/devices/system/cpu/cpu0/
// tsc_freq_khz"), ENOENT on most VMs, then a TSC measurement). When that
// first contention happens on a connecting thread, errno is ENOENT instead
// of EINPROGRESS and the connect is reported as failed: "failed to connect
// to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:PORT: No such file
// or directory" (no "Failed to connect to remote host" prefix: the
// immediate-failure branch). The channel then waits out its reconnect
// backoff (~1 s) and fails every call meanwhile. Seen in the in-process
// daemon tests (clients and server in one process, several channels
// connecting at once); measured with a connect storm of 8 channels x 5
// rounds per process: 4 such failures in 300 processes, none after this
// warm-up (docs/RELIABILITY.md).
//
// What: runs absl's lazily initialised CPU count and frequency probes now, so
// no later Mutex slow path makes a system call that can fail. Idempotent,
// cheap after the first call (the first takes a few ms where the frequency
// has to be measured); errno is left as it was. Called by grpc_server's
// constructor (daemon, in-process tests) and by cuzk-bench before it creates
// a channel.
namespace cuzk::service {

void prepare_grpc_process();

}  // namespace cuzk::service
