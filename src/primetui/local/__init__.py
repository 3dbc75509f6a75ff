"""primetui.local"""
