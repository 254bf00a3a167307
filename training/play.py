"""`python -m training.play`: kept for those who type it; see `miaui_env.apps.play`."""

from miaui_env.apps.play import main

if __name__ == "__main__":
    main()
