"""The view model: what the wire objects look like on screen (rows, columns, states, errors, run data, validation
scheduling). No textual, no rich: the dashboard and the headless commands both use it."""
