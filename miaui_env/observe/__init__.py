"""What one seat may see (R11): the observation layout, its visibility tables, the encoder
(`observation`), its exact uint8 codes (`compact`) and what a seat can infer of hidden cards (`belief`).

Imports only `game/`, the standard library and numpy.
"""
