"""`python -m training.play`: kept for those who type it; see `miaui_env.play`."""

from miaui_env.play import main

if __name__ == "__main__":
    main()
