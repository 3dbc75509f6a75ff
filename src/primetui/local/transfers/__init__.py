"""S3 import and export of volumes (contract V11-V14): real copies with boto3, as background jobs."""
