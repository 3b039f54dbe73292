"""A thread's storage: checkpointers from a short spec, the strict serializer every saver reads
with, one run per thread across processes, and reading a thread's checkpoints."""
