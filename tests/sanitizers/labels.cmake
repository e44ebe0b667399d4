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
