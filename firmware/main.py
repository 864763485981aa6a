# Pico entry point. Ctrl-C stays enabled so mpremote can always take over;
# holding MENU at power-up skips the game (safe boot).
import app

app.run()
