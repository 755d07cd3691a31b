"""Robustness suite (issue #7): hostile input, faults through the fakes, concurrency, bad data,
secrets in logs and input limits. Bounded so that it runs inside ``make test``."""
