#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# The soak (10-soak.sh) for 150 s of guest time: while developing.
SOAK_SECONDS=${SOAK_SECONDS:-150} . "$TPROF_ROOT/tests/soak/10-soak.sh"
