# SPDX-License-Identifier: Apache-2.0
# Extra ctest labels for the sanitizer runs (`make test-asan`, `make
# test-tsan`): a test labelled no_asan / no_tsan is left out of that run
# because it does not fit CI's 90 minutes under that sanitizer. Each entry
# gives the test's time under the sanitizer. ctest reads this file after the
# tests gtest_discover_tests found (TEST_INCLUDE_FILES of tests/ and
# tests/daemon/, appended last), so each entry restates the test's own label
# (set_tests_properties replaces the list); a name that no longer exists is
# ignored by ctest, so renaming a test listed here means renaming it here too.
#
# Measured on the CI-sized machine (2 cores, 24 GiB), see .ci/run.

# ASan (make test-asan, 2026-12-04 on the 2-core VM: the whole run 36 min, 509 tests):
# the test bounds the daemon's RSS growth while it refuses out-of-range counts
# (48 MiB); ASan's quarantine keeps freed blocks resident (measured 56 MiB of
# growth), so the bound only means something in the release build, where it
# runs in the default suite. 2.6 s under ASan.
set_tests_properties(integrity_limits.out_of_range_counts_are_refused_in_milliseconds_with_memory_unchanged
                     PROPERTIES LABELS "daemon;no_asan")

# ASan and TSan (2026-12-05 on the 2-core VM): the test compares a fast
# device stage (the CPU backend's proof of a chain partition, a few ms in the
# release build) with a 150 ms synthesis; instrumented, the proof is about as
# slow as the synthesis or slower, so its fast case no longer exists. Under
# TSan the pacer measured Ts / Tg = 0.59 (the only failure of the 78 engine
# tests TSan runs, 33 s); under ASan (a fresh clone of 81f0a6e, the only
# failure of its 515 tests) the fast case's lookahead fell to 3, one
# synthesis in flight. It runs in the default suite, where the rates are
# what it is about.
set_tests_properties(engine_pacing.fewer_syntheses_run_ahead_of_a_slow_device_than_of_a_fast_one
                     PROPERTIES LABELS "daemon;no_asan;no_tsan")
