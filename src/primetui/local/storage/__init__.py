"""The volume's direct storage route (V9/V10) and the S3-compatible endpoint it hands out."""
