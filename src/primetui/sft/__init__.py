"""primetui.sft"""
