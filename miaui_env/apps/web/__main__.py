"""`python -m miaui_env.apps.web`: serve the browser app (see miaui_env/apps/web)."""

from miaui_env.apps.web.app import main

main()
