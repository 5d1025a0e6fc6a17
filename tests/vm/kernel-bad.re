WARNING:
BUG:
kernel BUG at
Oops
general protection fault
refcount_t:
list_add corruption
list_del corruption
list_add_tail corruption
hung task
blocked for more than
possible circular locking
circular locking dependency
possible recursive locking
inconsistent lock state
possible irq lock inversion
suspicious RCU usage
lockdep
KASAN
UBSAN
Kernel panic
stack-protector
stack guard page
