"""primetui.api"""
