# SPDX-License-Identifier: GPL-2.0
# Reports of the debug kernel's detectors that fail a run (an extended
# regular expression, read by tests/vm/run-kernel.sh and guest-run.sh on top
# of their WARNING/BUG/Oops patterns; lines starting with # are comments).
BUG: KASAN|ODEBUG: .*object type|ODEBUG: Out of memory|list_(add|del) corruption|list_add double add|possible circular locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|scheduling while atomic|DEBUG_LOCKS_WARN_ON|UBSAN:
