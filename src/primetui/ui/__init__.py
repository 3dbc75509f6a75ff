"""primetui.ui"""
