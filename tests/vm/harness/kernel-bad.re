WARNING:
BUG:
BUG [a-z0-9_:.-]+ \(.*\): 
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
bad unlock balance
held lock freed
lock held when returning to user space
INFO: trying to register non-static key
DEBUG_LOCKS_WARN_ON
KASAN:
UBSAN:
KFENCE:
ODEBUG:
Poison overwritten
Redzone overwritten
Object padding overwritten
Freepointer corrupt
Object already free
rcu: INFO: .* self-detected stall
rcu: INFO: .* detected stalls
Kernel panic
stack-protector
stack guard page
Runtime PM usage count underflow
