# core/: bus-agnostic logic, also built for host tests and fuzzers.
# Owned by the core/ work; placeholder until it lands.
CORE_SRCS :=
