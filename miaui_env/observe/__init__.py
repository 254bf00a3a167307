"""What one seat may see (R11): the observation layout and its visibility tables (`observation`), the
encoder that writes a game onto the canvas (`encoder`), its exact uint8 codes (`compact`) and what a
seat can infer of hidden cards (`belief`).

Imports only `game/`, the standard library and numpy.
"""
