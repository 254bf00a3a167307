"""`python -m training.demo`: kept for those who type it; see `miaui_env.apps.demo`."""

from miaui_env.apps.demo import main

if __name__ == "__main__":
    main()
