"""The learner's side: only what runs inside the sandboxed learner process."""
