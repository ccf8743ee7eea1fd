"""The kernel's door: check(), the kernel's warm grader, the lab's kernel configuration."""
