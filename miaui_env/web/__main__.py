"""`python -m miaui_env.web`: serve the browser app (see miaui_env/web)."""

from miaui_env.web.app import main

main()
