"""Play and watch Miaui in the browser: `python -m training.web` (see miaui_env/web)."""

from miaui_env.web import main

if __name__ == "__main__":
    main()
