"""`python -m training.demo`: kept for those who type it; see `miaui_env.demo`."""

from miaui_env.demo import main

if __name__ == "__main__":
    main()
