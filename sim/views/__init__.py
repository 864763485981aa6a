"""Pure presenters: text views of a board and readable logs of its events; they import no board, so the host can use them too."""
