"""Kolkhoz play-by-post: the service core, the terminal front end and the Telegram bot."""
