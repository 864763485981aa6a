# Saved game state on the flash filesystem, written atomically: the new state
# goes to a temporary file which is then renamed over the old one (rename is
# atomic on littlefs), so a power cut leaves either the old or the new file.
# A file that fails to parse or validate is set aside as <name>.bad and reported.

import json
import os


class Store:
    def __init__(self, root="/"):
        if root and not root.endswith("/"):
            root += "/"
        self.root = root
        self.writes = 0

    def path(self, name):
        return self.root + name + ".json"

    def save(self, name, data):
        final = self.path(name)
        tmp = final + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.rename(tmp, final)
        self.writes += 1

    def load(self, name):
        # Returns the parsed dict, or None if there is no file. Raises ValueError
        # for a file that exists but does not parse (caller sets it aside).
        try:
            f = open(self.path(name))
        except OSError:
            return None
        try:
            data = json.load(f)
        except ValueError:
            raise ValueError("saved state does not parse")
        finally:
            f.close()
        if not isinstance(data, dict):
            raise ValueError("saved state is not an object")
        return data

    def set_aside(self, name):
        src = self.path(name)
        try:
            os.rename(src, src + ".bad")
        except OSError:
            try:
                os.remove(src)
            except OSError:
                pass

    def remove(self, name):
        try:
            os.remove(self.path(name))
        except OSError:
            pass
