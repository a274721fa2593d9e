#!/bin/bash
# Harness self-test: a case that passes but leaves a process running, which
# holds the case's output pipe. Added to the run by SELFTEST=stray; the run
# must end (no hang) and be reported as failed.
sleep 100000 &
echo "ok - a passing line does not hide the stray process"
