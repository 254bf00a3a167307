"""The games in other libraries' shapes: Miaui's SB3 VecEnvs (`sb3`), the privileged critic's global
state (`privileged`), card counting as network inputs (`card_odds`), wrappers for action masks and
flat observations (`adapters`), torch modules that expand the uint8 observation codes on the
learner's device (`compact_torch`), and both games as OpenSpiel games (`openspiel`)."""
