// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private helper of the io writers: a file replaced atomically. The body
// writes into "<path>.tmp-<pid>-<n>" in the same folder; the temporary is
// flushed, fsync'ed, renamed onto |path|, and the folder is fsync'ed, so a
// crash or power loss leaves either the old file or the complete new one
// under |path|, never a half one (a crash may leave the temporary behind;
// it never carries the real name). On any failure the temporary is removed
// and the error is rethrown; failures of the file itself are
// io::format_errors of |kind| naming |path| and the system's reason.
//
// Cost: the writes, plus one fsync of the file (the time to get its bytes
// to the disk: about 1-2 s per GB on a local NVMe) and one of the folder.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <ostream>

namespace cuzk::io::detail {

void write_file_atomically(const std::filesystem::path& path, const char* kind,
                           const std::function<void(std::ostream&)>& body);

/// The same in two steps, for writers that fill a file over many calls
/// (io::parameter_file_writer): a fresh "<path>.tmp-<pid>-<n>" name, then,
/// once the caller has written and closed it, fsync, rename onto |path| and
/// fsync of the folder (format_error of |kind| on failure; the caller
/// removes the temporary).
std::filesystem::path temporary_path_for(const std::filesystem::path& path);
void commit_temporary(const std::filesystem::path& tmp, const std::filesystem::path& path, const char* kind);

/// Removes the temporaries of |path| ("<path>.tmp-<pid>-<n>") left by
/// writers that died (a crash or an OOM kill mid-write: for a large shape,
/// gigabytes). A temporary is removed only when no process |pid| exists
/// (kill(pid, 0) fails with ESRCH); those of live processes, this one
/// included, are left alone. Never throws; returns the number removed.
/// Cost: one listing of |path|'s folder.
std::size_t remove_orphaned_temporaries(const std::filesystem::path& path) noexcept;

}  // namespace cuzk::io::detail
