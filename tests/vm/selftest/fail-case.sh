#!/bin/bash
# Harness self-test: a case that fails. Added to the run by SELFTEST=fail;
# the kernel's run must then be reported as failed.
echo "ok - a passing line does not hide the failure"
echo "not ok - deliberate failure"
