"""`python -m training.web`: play and watch Miaui in the browser; see `miaui_env.apps.web`."""

from miaui_env.apps.web import main

if __name__ == "__main__":
    main()
