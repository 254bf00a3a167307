"""The game itself: cards (R2-R3), the pure rules engine (R1-R10), saved states and the seed tree.

Imports only the standard library and numpy: a round is one joint action (`rules.play_round`),
every outcome a frozen record. Everything above answers to this room.
"""
