"""primetui.shell"""
