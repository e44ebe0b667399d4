// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled).
#pragma once
