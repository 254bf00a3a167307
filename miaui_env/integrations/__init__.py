"""Miaui in other libraries' shapes: the SB3 VecEnvs (`sb3`), the privileged critic's global state
(`privileged`), wrappers for action masks and flat observations (`adapters`), and torch modules
that expand the uint8 observation codes on the learner's device (`compact_torch`)."""
