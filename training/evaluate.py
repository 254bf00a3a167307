"""`python -m training.evaluate`: the arena's command line, kept for those who type it; see `miaui_env.apps.arena`."""

from miaui_env.apps.arena import main

if __name__ == "__main__":
    main()
